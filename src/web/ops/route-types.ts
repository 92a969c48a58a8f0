// The types of the console's gate, as routes.ts builds it and the areas in their own modules
// (fees, connector settings, statements, operators' lifecycle, settlements) receive it: below all
// of them, so no area imports routes.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpsSession } from '../../operators/auth.ts';
import type { OpsAction } from '../../operators/roles.ts';
import type * as V from './frame.ts';

export type Body = Record<string, string | undefined>;
export type Query = Record<string, string | undefined>;

export interface Ctx {
  s: OpsSession;
  f: V.Frame;
  request: FastifyRequest;
  reply: FastifyReply;
  query: Query;
  body: Body;
  params: Record<string, string>;
}
export type Result = V.Page | { redirect: string };
export type OpsRouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The gate as the console's areas in their own modules receive it (fees, connector settings, statement uploads, operators' lifecycle). */
export type OpsRouteOf = (action: OpsAction, handler: (c: Ctx) => Promise<Result>, o?: { upload?: boolean }) => OpsRouteHandler;

/** What routes.ts hands each area of the console (src/web/ops/areas/): the gate and the page plumbing around it. */
export interface OpsKit {
  opsRoute: OpsRouteOf;
  bareOf: (request: FastifyRequest, reply: FastifyReply) => V.BareFrame;
  render: (reply: FastifyReply, lang: V.BareFrame['lang'], page: V.Page) => FastifyReply;
  sessionCookie: (reply: FastifyReply, token: string | null) => void;
  notFound: (c: Ctx) => V.Page;
}
