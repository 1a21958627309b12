import { RE2JS } from 're2js';

/**
 * regex() of form expressions on the service: RE2's syntax, run by re2js, whose time is linear in the
 * text whatever the pattern (a pattern such as `(a|a)*b` cannot stall the one thread on a respondent's
 * 2,000 characters). The browser runs the same pattern with its own RegExp; a pattern RE2 refuses is
 * refused when the form is saved.
 */
const compiled = new Map<string, RE2JS>();
const LIMIT = 500;

function compile(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = RE2JS.compile(pattern);
    if (compiled.size >= LIMIT) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Why RE2 refuses the pattern (`missing closing )`), or null. */
export function patternProblem(pattern: string): string | null {
  try {
    compile(pattern);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
  }
}

/** Whether the pattern matches somewhere in the text; a pattern RE2 refuses matches nothing. */
export function patternMatches(pattern: string, text: string): boolean {
  try {
    return compile(pattern).test(text);
  } catch {
    return false;
  }
}
