// URLs that caja calls or sends customers to must be HTTPS; staging also takes http:// on
// loopback hosts so merchants can test on their own machine (DESIGN.md "Running").
import type { Environment } from '../config/config.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Null when acceptable, else the reason. */
export function checkCallbackUrl(value: unknown, env: Environment, maxLength = 2048): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > maxLength) return `must be at most ${maxLength} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && env === 'staging' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return env === 'staging' ? 'must be an HTTPS URL (http is accepted only for localhost in staging)' : 'must be an HTTPS URL';
}
