// Staging's card network: the card kind of staging, behind the payin interface as a real acquirer
// is. Its charge answers a redirect to its simulated card page, which caja serves in staging
// (/checkout/<token>/card, src/web/checkout/routes.ts); what the customer types there is decided
// by the documented test numbers (src/domain/cards.ts, docs/checkout.md) and recorded here, in
// the network's own table (staging_card_attempts), masked; the return leg
// (/connectors/staging-card/return/<token>) reads the result back from that table (readReturn)
// as it would ask an acquirer, and only then completes the deposit. Its refunds go through the
// staging card refund network (./card-network.ts), as every card refund in staging. A stand-in
// kind (src/connectors/kind.ts StandInKind): it collects every card method, on its own card page.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../config/context.ts';
import type { Queryable } from '../../db/db.ts';
import { catalogMethods } from '../../domain/catalog.ts';
import { cardDetail, checkCard, type CardDetail, type CardInput, stagingOutcome } from '../../domain/cards.ts';
import type { CardPageAnswer, StandInKind } from '../kind.ts';
import { confirmedOutsideProvider, type PayinConnector, type ReturnResult } from '../payin.ts';

export const STAGING_CARD = 'staging-card';

/** Where the simulated card page of a deposit is (a page of caja's, staging only). */
export function stagingCardPagePath(token: string): string {
  return `/checkout/${token}/card`;
}

interface AttemptRow {
  id: string;
  status: 'authorised' | 'refused' | 'challenge';
  card_detail: CardDetail;
}

async function latestAttempt(q: Queryable, reference: string): Promise<AttemptRow | null> {
  const { rows } = await q.query<AttemptRow>(
    'SELECT id, status, card_detail FROM staging_card_attempts WHERE charge_reference = $1 ORDER BY id DESC LIMIT 1',
    [reference],
  );
  return rows[0] ?? null;
}

const built = new WeakMap<object, PayinConnector>();

/** The staging card network's connector for this database. */
export function stagingCard(ctx: AppContext): PayinConnector {
  let c = built.get(ctx.db);
  if (c) return c;
  c = {
    ...confirmedOutsideProvider,
    name: STAGING_CARD,
    simulated: true,
    async createCharge(order) {
      // The network's name for the charge: random, stored with the deposit (connector_reference).
      const reference = `sc_${randomBytes(16).toString('base64url')}`;
      return { paymentInfo: null, reference, nextAction: { type: 'redirect', url: `${order.publicBaseUrl}${stagingCardPagePath(order.token)}`, method: 'GET' } };
    },
    async readReturn(reference): Promise<ReturnResult> {
      const a = await latestAttempt(ctx.db, reference);
      if (!a) return { status: 'pending' };
      switch (a.status) {
        case 'authorised':
          return { status: 'paid', card: a.card_detail };
        case 'refused':
          return { status: 'failed', reason: 'card declined' };
        case 'challenge':
          return { status: 'pending' };
      }
    },
    async health() {
      return { ok: true, simulated: true };
    },
  };
  built.set(ctx.db, c);
  return c;
}

/**
 * What the simulated card page does with a card typed for the charge `reference` (of a card
 * method `methodCode`). The full number lives only in this call's memory: the attempt keeps the
 * masked card_detail.
 */
export async function payOnStagingCardPage(ctx: AppContext, reference: string, methodCode: string, input: CardInput): Promise<CardPageAnswer> {
  const check = checkCard(input, methodCode, ctx.now());
  if (!check.ok) return { kind: 'invalid', errors: check.errors };
  const detail = cardDetail(check.card);
  const outcome = stagingOutcome(check.card.digits);
  const status = outcome === 'approve' ? 'authorised' : outcome === 'decline' ? 'refused' : 'challenge';
  await ctx.db.query(
    'INSERT INTO staging_card_attempts (charge_reference, status, card_detail, created_at, decided_at) VALUES ($1, $2, $3, $4, $5)',
    [reference, status, JSON.stringify(detail), ctx.now(), status === 'challenge' ? null : ctx.now()],
  );
  return status === 'authorised' ? { kind: 'authorised' } : status === 'refused' ? { kind: 'declined' } : { kind: 'challenge', detail };
}

/** The card waiting for the customer's 3-D Secure answer on the charge, or null. */
export async function openStagingChallenge(ctx: AppContext, reference: string): Promise<CardDetail | null> {
  const a = await latestAttempt(ctx.db, reference);
  return a?.status === 'challenge' ? a.card_detail : null;
}

/**
 * The customer's answer to the 3-D Secure step of the charge's open challenge: authorised or
 * refused. False when no challenge is open (answered already, or never asked).
 */
export async function answerStagingChallenge(ctx: AppContext, reference: string, approve: boolean): Promise<boolean> {
  const { rows } = await ctx.db.query<{ id: string }>(
    `UPDATE staging_card_attempts SET status = $2, decided_at = $3
     WHERE id = (SELECT id FROM staging_card_attempts WHERE charge_reference = $1 ORDER BY id DESC LIMIT 1) AND status = 'challenge'
     RETURNING id`,
    [reference, approve ? 'authorised' : 'refused', ctx.now()],
  );
  return rows.length > 0;
}

export const stagingCardKind: StandInKind = {
  name: STAGING_CARD,
  label: 'staging card network',
  collects: {
    serves: catalogMethods().filter((m) => m.kind === 'card').map((m) => ({ country: m.country, method: m.code })),
    build: stagingCard,
  },
  cardPage: { pay: payOnStagingCardPage, openChallenge: openStagingChallenge, answerChallenge: answerStagingChallenge },
};
