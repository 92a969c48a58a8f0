// The panel's templates: each a pure function of its view model, built with the html`…` tag
// (../html.ts), which escapes every value (merchant- and payer-supplied text included), every word from the panel dictionary. Forms post
// to the panel with the session's CSRF token; nothing here reads the database.
//
// One module per area (frame, sign-in, home, deposits, cashouts, balance, settings, team), like
// ../routes/; this file is their index, so the routes import `* as V from '../views/pages.ts'`.
export { PANEL_CSS, frame, field } from './frame.ts';
export type { Frame, Page, BareFrame, ListQuery } from './frame.ts';
export * from './sign-in.ts';
export * from './home.ts';
export * from './deposits.ts';
export * from './cashouts.ts';
export * from './balance.ts';
export * from './settings.ts';
export * from './team.ts';
