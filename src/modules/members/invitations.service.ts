import { queueWebhookEvent } from '../webhooks/index.js';
import { transaction, type Db } from '../../db/client.js';
import type { Session } from '../../http/pipeline/access.js';
import { duplicate, forbidden, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { hashToken } from '../../lib/ids.js';
import { findUserById, recordProvenAddress } from '../auth/index.js';
import { recordFeedEventBy } from '../feed/index.js';
import {
  countOpenInvitations,
  deleteOpenInvitation,
  findUsableInvitation,
  listOpenInvitations,
  markInvitationAccepted,
  publicInvitation,
} from './invitations.repo.js';
import { insertMember, publicOrganization } from '../orgs/index.js';

export class InvitationService {
  constructor(
    private readonly db: Db,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
  ) {}

  list(orgId: string, query: PageRequest) {
    return paginate(query, {
      count: () => countOpenInvitations(this.db, orgId),
      list: async (window) =>
        (await listOpenInvitations(this.db, orgId, window)).map((row) => publicInvitation(row)),
    });
  }

  async revoke(orgId: string, id: string): Promise<void> {
    if (!(await deleteOpenInvitation(this.db, orgId, id))) throw notFound('Invitation');
  }

  /** Public: what the invitation link offers, so the client can show it before sign-in. */
  async lookup(token: string) {
    const found = await findUsableInvitation(this.db, hashToken(token));
    if (!found) throw notFound('Invitation');
    return {
      organizationName: found.organization.name,
      email: found.invitation.email,
      role: found.invitation.role,
      expiresAt: found.invitation.expiresAt,
    };
  }

  async accept(session: Session, token: string) {
    const user = await findUserById(this.db, session.userId);
    return transaction(this.db, async (tx) => {
      const found = await findUsableInvitation(tx, hashToken(token), { lock: true });
      if (!found) throw notFound('Invitation');
      const { invitation, organization } = found;
      if (!user || invitation.email !== user.email)
        throw forbidden({ reason: 'invitation_for_another_email' });
      if (!(await insertMember(tx, organization.id, { userId: user.id, role: invitation.role }))) {
        throw duplicate('You are already a member of this organization');
      }
      await markInvitationAccepted(tx, organization.id, invitation.id);
      // The invitation was emailed to this address and the user followed its link: the address is proven.
      await recordProvenAddress(tx, user.id);
      await recordFeedEventBy(tx, { orgId: organization.id, userId: user.id }, (name) => ({
        type: 'member.joined',
        subject: { type: 'member', id: user.id, label: name },
        summary: `${name} joined as ${invitation.role}`,
      }));
      await queueWebhookEvent(
        tx,
        {
          orgId: organization.id,
          type: 'member.joined',
          data: { userId: user.id, role: invitation.role, invitationId: invitation.id },
        },
        this.webhooksQueued,
      );
      return { organization: publicOrganization(organization), role: invitation.role };
    });
  }
}
