import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { INVITE_ONLY, registrationClosed } from '../../errors/catalogue.js';

export { INVITE_ONLY };

/**
 * Whether an address holds an invitation still open (not accepted, not expired) to any organization: the
 * members module, above this one, answers (wired in `buildApp`).
 */
export type InvitedAddress = (db: Db, email: string) => Promise<boolean>;

/** The refusal under REGISTRATION=domains: it names the domains, which is what the person needs to know. */
export const domainsOnly = (domains: readonly string[]) =>
  `New accounts need an email address at ${listed(domains)}: use your address at ${
    domains.length === 1 ? 'that domain' : 'one of these domains'
  }, or ask an administrator of your organization for an invitation. If you already have an account, sign in.`;

const listed = (items: readonly string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/** The part of a normalized address after its last `@`. */
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/**
 * Who may get a new account (REGISTRATION): `open` anyone; `invite` addresses holding an open invitation;
 * `domains` addresses at one of REGISTRATION_DOMAINS (exactly: `mail.ngo.org` is not `ngo.org`), and
 * invited ones too, an invitation being an org_admin's choice. Existing accounts are never concerned.
 */
export class RegistrationPolicy {
  constructor(
    private readonly rule: Config['registration'],
    private readonly invited: InvitedAddress,
  ) {}

  /** Why no account may be created for the normalized `email` (the message of the 403), or null. */
  async refusal(db: Db, email: string): Promise<string | null> {
    if (this.rule.mode === 'open') return null;
    if (this.rule.mode === 'domains' && this.rule.domains.includes(domainOf(email))) return null;
    if (await this.invited(db, email)) return null;
    return this.rule.mode === 'invite' ? INVITE_ONLY : domainsOnly(this.rule.domains);
  }

  /** 403 `registration_closed` unless an account may be created for the normalized `email`. */
  async check(db: Db, email: string): Promise<void> {
    const refusal = await this.refusal(db, email);
    if (refusal !== null) throw registrationClosed(refusal);
  }
}
