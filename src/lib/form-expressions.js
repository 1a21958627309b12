// Form expressions: the subset of XLSForm's XPath that `relevant`, `constraint` and `calculation` are
// written in (docs/forms.md, "Expressions"). One file, plain JavaScript with no imports, so that the
// service and the respondent's browser parse and evaluate the same way: the service imports it as a
// module; the public form page loads it as a module script, which also sets `window.melExpressions`.
// The parser is a hand-written recursive descent (no eval, no Function): text becomes a small tree once,
// the tree is evaluated against a context that resolves `${field}`, `.`, today() and regex().

/** A text that is not an expression we take; `message` says why, for a 400 or a designer. */
export class ExpressionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** Nesting deeper than this (parentheses, calls, unary minus) is refused: the parser recurses. */
const MAX_NESTING = 40;

/**
 * The functions taken, with their argument counts [min, max]; `field` marks the arguments that must be
 * a `${field}` reference (selected's first, count's only).
 */
export const FUNCTIONS = {
  not: { args: [1, 1] },
  selected: { args: [2, 2], field: [0] },
  'count-selected': { args: [1, 1] },
  'string-length': { args: [1, 1] },
  regex: { args: [2, 2] },
  today: { args: [0, 0] },
  count: { args: [1, 1], field: [0] },
  sum: { args: [1, 1], field: [0] },
  if: { args: [3, 3] },
  coalesce: { args: [2, 2] },
  concat: { args: [1, 20] },
  contains: { args: [2, 2] },
  'starts-with': { args: [2, 2] },
  number: { args: [1, 1] },
  string: { args: [1, 1] },
  int: { args: [1, 1] },
  round: { args: [1, 2] },
  true: { args: [0, 0] },
  false: { args: [0, 0] },
};

const WORD_OPERATORS = new Set(['and', 'or', 'div', 'mod']);

/** Splits the text into tokens: numbers, strings, `${name}`, `.`, names and operators. */
function tokenize(text) {
  const tokens = [];
  let at = 0;
  const fail = (message) => {
    throw new ExpressionError(`${message} at character ${at + 1}`);
  };
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^[ \t\r\n]+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const start = at;
    let match;
    if ((match = /^\$\{([A-Za-z_][A-Za-z0-9_-]*)\}/.exec(rest))) {
      tokens.push({ kind: 'ref', name: match[1], at: start });
    } else if (rest.startsWith('${')) {
      fail('a reference is ${name}, the name of a field,');
    } else if ((match = /^(\d+(\.\d*)?|\.\d+)/.exec(rest))) {
      tokens.push({ kind: 'num', value: Number(match[0]), at: start });
    } else if (rest[0] === "'" || rest[0] === '"') {
      const end = rest.indexOf(rest[0], 1);
      if (end < 0) fail('a string is not closed');
      match = [rest.slice(0, end + 1)];
      tokens.push({ kind: 'str', value: rest.slice(1, end), at: start });
    } else if ((match = /^(!=|<=|>=|[=<>+\-*(),.])/.exec(rest))) {
      tokens.push({ kind: 'op', value: match[0], at: start });
    } else if ((match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest))) {
      tokens.push({ kind: 'name', value: match[0], at: start });
    } else {
      const character = String.fromCodePoint(rest.codePointAt(0));
      fail(`"${character}" is not part of an expression`);
    }
    at += match[0].length;
  }
  return tokens;
}

/**
 * Parses `text` into a tree, or throws an ExpressionError. Precedence, loosest first, as XPath: or, and,
 * = !=, < <= > >=, + -, * div mod, unary minus.
 */
export function parseExpression(text) {
  if (typeof text !== 'string' || text.trim() === '') throw new ExpressionError('the expression is empty');
  const tokens = tokenize(text);
  let index = 0;
  let depth = 0;
  const peek = () => tokens[index];
  const where = (token) => (token ? `at character ${token.at + 1}` : 'at the end');
  const isOp = (token, ...values) =>
    token !== undefined && token.kind === 'op' && values.includes(token.value);
  const isWord = (token, ...values) =>
    token !== undefined && token.kind === 'name' && values.includes(token.value);
  const expect = (value) => {
    const token = peek();
    if (!isOp(token, value)) throw new ExpressionError(`expected "${value}" ${where(token)}`);
    index += 1;
  };
  const nested = (parse) => {
    depth += 1;
    if (depth > MAX_NESTING) throw new ExpressionError(`the expression nests deeper than ${MAX_NESTING}`);
    const node = parse();
    depth -= 1;
    return node;
  };

  const binary = (next, test) => () => {
    let left = next();
    for (let token = peek(); test(token); token = peek()) {
      index += 1;
      left = { kind: 'binary', operator: token.value, left, right: next() };
    }
    return left;
  };
  const unary = () => {
    if (isOp(peek(), '-')) {
      index += 1;
      return nested(() => ({ kind: 'negate', operand: unary() }));
    }
    return primary();
  };
  const multiplicative = binary(unary, (t) => isOp(t, '*') || isWord(t, 'div', 'mod'));
  const additive = binary(multiplicative, (t) => isOp(t, '+', '-'));
  const relational = binary(additive, (t) => isOp(t, '<', '<=', '>', '>='));
  const equality = binary(relational, (t) => isOp(t, '=', '!='));
  const and = binary(equality, (t) => isWord(t, 'and'));
  const or = binary(and, (t) => isWord(t, 'or'));

  function call(token) {
    const name = token.value;
    const spec = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (!spec) throw new ExpressionError(`${name}() is not a function expressions may use`);
    index += 1;
    expect('(');
    const args = [];
    if (!isOp(peek(), ')')) {
      args.push(nested(or));
      while (isOp(peek(), ',')) {
        index += 1;
        args.push(nested(or));
      }
    }
    expect(')');
    const [min, max] = spec.args;
    if (args.length < min || args.length > max) {
      const count = min === max ? `${min}` : `${min} to ${max}`;
      throw new ExpressionError(
        `${name}() takes ${count} argument${max === 1 ? '' : 's'}, not ${args.length}`,
      );
    }
    for (const position of spec.field ?? []) {
      if (args[position].kind !== 'ref') {
        throw new ExpressionError(
          `${name}()'s ${position === 0 ? 'first ' : ''}argument must be a \${field}`,
        );
      }
    }
    return { kind: 'call', name, args };
  }

  function primary() {
    const token = peek();
    if (token === undefined) throw new ExpressionError('the expression ends too early');
    switch (token.kind) {
      case 'num':
        index += 1;
        return { kind: 'number', value: token.value };
      case 'str':
        index += 1;
        return { kind: 'string', value: token.value };
      case 'ref':
        index += 1;
        return { kind: 'ref', name: token.name };
      case 'name':
        if (WORD_OPERATORS.has(token.value) && !isOp(tokens[index + 1], '(')) {
          throw new ExpressionError(`"${token.value}" needs something before it ${where(token)}`);
        }
        if (!isOp(tokens[index + 1], '(')) {
          throw new ExpressionError(
            `"${token.value}" ${where(token)} is not a value: refer to a field as \${${token.value}}`,
          );
        }
        return call(token);
      case 'op':
        if (token.value === '.') {
          index += 1;
          return { kind: 'self' };
        }
        if (token.value === '(') {
          index += 1;
          const inner = nested(or);
          expect(')');
          return inner;
        }
        throw new ExpressionError(`unexpected "${token.value}" ${where(token)}`);
    }
  }

  const tree = or();
  if (index < tokens.length) {
    const token = peek();
    const shown = token.kind === 'ref' ? `\${${token.name}}` : (token.value ?? token.name);
    throw new ExpressionError(`unexpected "${shown}" ${where(token)}`);
  }
  return tree;
}

/** Walks the tree, calling `visit` on every node. */
function walk(node, visit) {
  visit(node);
  if (node.kind === 'binary') {
    walk(node.left, visit);
    walk(node.right, visit);
  } else if (node.kind === 'negate') walk(node.operand, visit);
  else if (node.kind === 'call') node.args.forEach((arg) => walk(arg, visit));
}

/** The names of the fields the expression refers to, each once, in order. */
export function references(node) {
  const names = [];
  walk(node, (n) => {
    if (n.kind === 'ref' && !names.includes(n.name)) names.push(n.name);
  });
  return names;
}

/** Whether the expression uses `.` (the answer itself): constraints do, relevant and calculation cannot. */
export function usesSelf(node) {
  let found = false;
  walk(node, (n) => {
    if (n.kind === 'self') found = true;
  });
  return found;
}

/** The calls of a function in the tree (e.g. the patterns of regex(), to check them when a form is saved). */
export function callsOf(node, name) {
  const calls = [];
  walk(node, (n) => {
    if (n.kind === 'call' && n.name === name) calls.push(n);
  });
  return calls;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** XPath's string(): numbers without a trailing .0, booleans as words, lists joined by spaces, none as ''. */
export function toText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (Array.isArray(value)) return value.every((item) => typeof item !== 'object') ? value.join(' ') : '';
  return '';
}

/** XPath's number(): a blank or non-numeric text is NaN, true is 1. */
export function toNumber(value) {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  const text = toText(value).trim();
  return text === '' || !/^-?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number.NaN : Number(text);
}

/** XPath's boolean(): a number not 0 nor NaN, a text or list not empty. */
export function toBoolean(value) {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  return toText(value) !== '';
}

/** `=` and `!=`: as booleans if either is one, else as numbers if either is one, else as texts. */
function equal(left, right) {
  if (typeof left === 'boolean' || typeof right === 'boolean') return toBoolean(left) === toBoolean(right);
  if (typeof left === 'number' || typeof right === 'number') return toNumber(left) === toNumber(right);
  return toText(left) === toText(right);
}

/** `< <= > >=`: two dates (YYYY-MM-DD) compare as dates, anything else as numbers. */
function compare(operator, left, right) {
  const a = toText(left);
  const b = toText(right);
  const [x, y] = DATE.test(a) && DATE.test(b) ? [a, b] : [toNumber(left), toNumber(right)];
  if (typeof x === 'number' && (Number.isNaN(x) || Number.isNaN(y))) return false;
  switch (operator) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}

/** The items of a multi_select answer (a list, or a space-separated text as XLSForm writes it). */
function selections(value) {
  if (Array.isArray(value)) return value.map(toText);
  const text = toText(value).trim();
  return text === '' ? [] : text.split(/\s+/);
}

function arithmetic(operator, left, right) {
  const a = toNumber(left);
  const b = toNumber(right);
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case 'div':
      return a / b;
    default:
      return a % b;
  }
}

/**
 * The value of `node`. `context.value(name)` gives a field's answer (undefined when unanswered; a repeat
 * gives its list of entries), `context.self` the answer `.` stands for, `context.today()` the date as
 * YYYY-MM-DD, `context.matches(pattern, text)` whether a regex() pattern matches somewhere in the text.
 * Results are numbers, texts, booleans or lists (a multi_select answer, a repeat).
 */
export function evaluate(node, context) {
  switch (node.kind) {
    case 'number':
    case 'string':
      return node.value;
    case 'ref':
      return context.value(node.name);
    case 'self':
      return context.self;
    case 'negate':
      return -toNumber(evaluate(node.operand, context));
    case 'binary': {
      const { operator } = node;
      if (operator === 'and')
        return toBoolean(evaluate(node.left, context)) && toBoolean(evaluate(node.right, context));
      if (operator === 'or')
        return toBoolean(evaluate(node.left, context)) || toBoolean(evaluate(node.right, context));
      const left = evaluate(node.left, context);
      const right = evaluate(node.right, context);
      if (operator === '=') return equal(left, right);
      if (operator === '!=') return !equal(left, right);
      if (['<', '<=', '>', '>='].includes(operator)) return compare(operator, left, right);
      return arithmetic(operator, left, right);
    }
    case 'call':
      return call(node, context);
  }
  throw new ExpressionError(`unknown node ${node.kind}`);
}

function call(node, context) {
  const arg = (index) => evaluate(node.args[index], context);
  switch (node.name) {
    case 'not':
      return !toBoolean(arg(0));
    case 'selected':
      return selections(arg(0)).includes(toText(arg(1)));
    case 'count-selected':
      return selections(arg(0)).length;
    case 'string-length':
      return [...toText(arg(0))].length;
    case 'regex':
      return context.matches(toText(arg(1)), toText(arg(0)));
    case 'today':
      return context.today();
    case 'count': {
      const value = arg(0);
      return Array.isArray(value) ? value.length : toText(value) === '' ? 0 : 1;
    }
    case 'sum': {
      const value = arg(0);
      const items = Array.isArray(value) ? value : [value];
      return items.reduce((total, item) => total + toNumber(item), 0);
    }
    case 'if':
      return toBoolean(arg(0)) ? arg(1) : arg(2);
    case 'coalesce': {
      const first = arg(0);
      return toText(first) !== '' ? first : arg(1);
    }
    case 'concat':
      return node.args.map((_, index) => toText(arg(index))).join('');
    case 'contains':
      return toText(arg(0)).includes(toText(arg(1)));
    case 'starts-with':
      return toText(arg(0)).startsWith(toText(arg(1)));
    case 'number':
      return toNumber(arg(0));
    case 'string':
      return toText(arg(0));
    case 'int':
      return Math.trunc(toNumber(arg(0)));
    case 'round': {
      const digits = node.args.length > 1 ? Math.trunc(toNumber(arg(1))) : 0;
      const factor = 10 ** Math.max(-15, Math.min(15, digits));
      return Math.round(toNumber(arg(0)) * factor) / factor;
    }
    case 'true':
      return true;
    case 'false':
      return false;
  }
  throw new ExpressionError(`${node.name}() is not a function expressions may use`);
}

/** Parses once per text: forms evaluate the same few expressions for every submission. */
export function cachedParser(limit = 1000) {
  const trees = new Map();
  return (text) => {
    let tree = trees.get(text);
    if (tree === undefined) {
      tree = parseExpression(text);
      if (trees.size >= limit) trees.delete(trees.keys().next().value);
      trees.set(text, tree);
    }
    return tree;
  };
}

/** Arabic-Indic (٠-٩) and Eastern Arabic-Indic, or Persian (۰-۹), digits, as the ASCII digit they are. */
const LOCAL_DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/g;
const digitOf = (character) => {
  const code = character.charCodeAt(0);
  return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
};
/** Marks a right-to-left keyboard or a copy and paste may put around a number: they carry no value. */
const DIRECTION_MARKS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const NUMBER_TEXT = /^-?(\d+(\.\d*)?|\.\d+)$/;

/**
 * The number a respondent typed, or NaN: ASCII, Arabic-Indic or Persian digits, a leading minus (or −),
 * the decimal point `.` or the Arabic decimal separator `٫`; `,` as the decimal separator too when
 * `options.comma` (the page's language writes 2,5: French, Spanish, Portuguese). No grouping
 * separators: `1,500` is NaN where `,` is not decimal, never a misread 1.5 or 1500.
 */
export function readNumber(text, options = {}) {
  if (typeof text === 'number') return Number.isFinite(text) ? text : Number.NaN;
  if (typeof text !== 'string') return Number.NaN;
  let plain = text.replace(DIRECTION_MARKS, '').trim().replace(LOCAL_DIGITS, digitOf);
  plain = plain.replace(/^[\u2212\u2012\u2013\uFE63\uFF0D]/, '-').replace(/\u066B/g, '.');
  if (options.comma) plain = plain.replace(/,/g, '.');
  if (!NUMBER_TEXT.test(plain)) return Number.NaN;
  const value = Number(plain);
  return Number.isFinite(value) ? value : Number.NaN;
}

if (typeof window !== 'undefined') {
  window.melExpressions = {
    ExpressionError,
    parseExpression,
    references,
    usesSelf,
    evaluate,
    toBoolean,
    toNumber,
    toText,
    cachedParser,
    readNumber,
  };
}
