// What request handlers and workers share: configuration, the store and the secret box.
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import type { SecretBox } from './merchants/secrets.ts';

export interface AppContext {
  config: Config;
  db: Db;
  box: SecretBox;
  /** Current time; tests may replace it. */
  now: () => Date;
}
