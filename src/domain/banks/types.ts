/** A `GET /v3/banks` entry: `code` is what merchants send back as bank_code. */
export interface Bank {
  readonly code: number;
  readonly name: string;
  /** Brazil: the participant's ISPB (the 8-digit id Pix and STR use alongside the COMPE code). */
  readonly ispb?: string;
}

/** Parses "code=name" lines, which keeps the data files close to the registries they copy. */
export function parseBanks(lines: string): Bank[] {
  return lines
    .trim()
    .split('\n')
    .map((line) => {
      const at = line.indexOf('=');
      return { code: Number(line.slice(0, at).trim()), name: line.slice(at + 1).trim() };
    });
}
