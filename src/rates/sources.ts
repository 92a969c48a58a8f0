// The configured rate sources (CAJA_RATES_SOURCES): each kind is one line of KINDS, so another
// source is one module and one entry here.
import type { Config, RateSourceConfig } from '../config/config.ts';
import { ConfigError } from '../config/config.ts';
import { banxico, FIX_SERIES } from './banxico.ts';
import { bcbPtax } from './bcb-ptax.ts';
import type { RatesSource } from './source.ts';

type Make = (c: Config, s: RateSourceConfig) => RatesSource;

const KINDS: Record<string, Make> = {
  'bcb-ptax': (c, s) => {
    if (s.currency !== 'BRL' || s.series) throw new ConfigError(`CAJA_RATES_SOURCES: bcb-ptax prices BRL only (BRL=bcb-ptax)`);
    return bcbPtax(c.rates.bcbPtaxUrl, c.connectors.timeoutMs);
  },
  'banxico-fix': (c, s) => {
    if (s.currency !== 'MXN' || s.series) throw new ConfigError(`CAJA_RATES_SOURCES: banxico-fix prices MXN only (MXN=banxico-fix)`);
    return banxico(c.rates.banxicoUrl, c.rates.banxicoToken!, 'MXN', FIX_SERIES, c.connectors.timeoutMs);
  },
  banxico: (c, s) => {
    if (!s.series) throw new ConfigError(`CAJA_RATES_SOURCES: banxico needs its series (${s.currency}=banxico:SF…)`);
    return banxico(c.rates.banxicoUrl, c.rates.banxicoToken!, s.currency, s.series, c.connectors.timeoutMs);
  },
};

export const SOURCE_KINDS = Object.keys(KINDS);

/** The sources of the configuration; an unknown kind is a configuration error at start. */
export function configuredSources(config: Config): RatesSource[] {
  return config.rates.sources.map((s) => {
    const make = KINDS[s.kind];
    if (!make) throw new ConfigError(`CAJA_RATES_SOURCES: unknown source '${s.kind}' for ${s.currency} (known: ${SOURCE_KINDS.join(', ')})`);
    return make(config, s);
  });
}
