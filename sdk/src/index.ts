// @caja/sdk: the client, its errors, and the signature helpers a merchant's handlers need.
export * from './client.ts';
export * from './errors.ts';
export * from './signatures.ts';
export type { paths, components } from './openapi.ts';
