import { queueWebhookEvent } from '../webhooks/index.js';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { duplicate, hasDependents, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { newSecretToken } from '../../lib/ids.js';
import { recordFeedEventBy } from '../feed/index.js';
import { queueEmail } from '../mail/index.js';
import { publicInvitation, replaceInvitation } from './invitations.repo.js';
import { invitationEmail } from './members.emails.js';
import {
  countMembers,
  deleteMember,
  findMember,
  findOrganization,
  isMemberByEmail,
  listMembers,
  lockAdmins,
  recipientLocale,
  setMemberRole,
} from '../orgs/index.js';
import type { OrgRole } from '../../http/pipeline/access.js';

const INVITATION_DAYS = 7;
const LAST_ADMIN = 'The last org_admin of an organization can be neither demoted nor removed';

export class MemberService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    /** Wakes the outbox worker; called once a transaction that queued email has committed. */
    private readonly mailQueued: () => void,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
  ) {}

  list(orgId: string, query: PageRequest) {
    return paginate(query, {
      count: () => countMembers(this.db, orgId),
      list: (window) => listMembers(this.db, orgId, window),
    });
  }

  async changeRole(member: Member, userId: string, role: OrgRole) {
    return transaction(this.db, async (tx) => {
      const admins = await lockAdmins(tx, member.orgId);
      const target = await findMember(tx, member.orgId, userId);
      if (!target) throw notFound('Member');
      if (target.role === 'org_admin' && role !== 'org_admin' && admins.length === 1)
        throw hasDependents(LAST_ADMIN);
      await setMemberRole(tx, member.orgId, userId, role);
      return { ...target, role };
    });
  }

  /** org_admins remove anyone; any member may leave (the access rule lets them name themself). */
  async remove(member: Member, userId: string): Promise<void> {
    await transaction(this.db, async (tx) => {
      const admins = await lockAdmins(tx, member.orgId);
      const target = await findMember(tx, member.orgId, userId);
      if (!target) throw notFound('Member');
      if (target.role === 'org_admin' && admins.length === 1) throw hasDependents(LAST_ADMIN);
      await deleteMember(tx, member.orgId, userId);
    });
  }

  async invite(member: Member, input: { email: string; role: OrgRole }) {
    const org = await findOrganization(this.db, member.orgId);
    if (!org) throw notFound('Organization');
    const { token, hash } = newSecretToken();
    const invitation = await transaction(this.db, async (tx) => {
      if (await isMemberByEmail(tx, member.orgId, input.email)) {
        throw duplicate('This user is already a member of the organization');
      }
      const row = await replaceInvitation(tx, member.orgId, {
        email: input.email,
        role: input.role,
        tokenHash: hash,
        invitedBy: member.userId,
        expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
      });
      const inviterName = await recordFeedEventBy(tx, member, (actor) => ({
        type: 'member.invited',
        subject: { type: 'invitation', id: row.id, label: input.email },
        summary: `${actor} invited ${input.email} as ${input.role}`,
      }));
      // The invitee's address stays out: ids and the role only.
      await queueWebhookEvent(
        tx,
        {
          orgId: member.orgId,
          type: 'member.invited',
          data: { id: row.id, role: row.role, invitedBy: member.userId, expiresAt: row.expiresAt },
        },
        this.webhooksQueued,
      );
      const locale = await recipientLocale(tx, { email: input.email, orgId: member.orgId });
      await queueEmail(
        tx,
        invitationEmail(
          {
            email: input.email,
            role: input.role,
            orgName: org.name,
            inviterName,
            appUrl: this.config.appUrl,
            token,
            days: INVITATION_DAYS,
          },
          locale,
        ),
      );
      return row;
    });
    this.mailQueued();
    return publicInvitation(invitation);
  }
}
