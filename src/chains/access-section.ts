/**
 * How a family reads its network access from a catalogue entry. The catalogue
 * reader owns the file and its error lines; the family owns which fields it
 * takes and what they mean. Declared apart from the driver and the access
 * types so that the families' parsers and `chain-network.ts` can share it
 * without importing each other.
 */

/** One network's entry of the catalogue file, as the family's parser sees it. */
export interface AccessSection {
  /** The entry's fields as written in the file (JSON values; absent fields are undefined). */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The network's factories, "" while not deployed: families whose addresses commit to them need both to be live. */
  readonly mainFactory: string;
  readonly invoiceFactory: string;
  /** Why `address` is not an address of the network's family, or undefined when it is (the family's address rule). */
  addressProblem(address: string): string | undefined;
}

/**
 * Reports a bad field and does not return: the catalogue reader turns it into
 * its one line naming the network and the field, and start-up stops there.
 */
export type AccessFail = (field: string, problem: string) => never;

/**
 * A family's access parser: pure, so that every family's entries are checked
 * at start, whether or not the family has a running driver.
 */
export interface AccessParser<Access> {
  /** Every access field the family takes; the reader refuses the other families' ones on its entries. */
  readonly fields: readonly string[];
  /** The access, or undefined when the entry gives none (the network is listed, not live). */
  parse(section: AccessSection, fail: AccessFail): Access | undefined;
}

/** Small readers over an entry's fields; each bad value is reported through `fail`, naming the field. */
export function accessFields(section: AccessSection, fail: AccessFail) {
  const value = (field: string): unknown => section.fields[field];
  const has = (field: string): boolean => value(field) !== undefined;
  const string = (field: string): string => {
    const text = value(field);
    if (typeof text !== 'string') fail(field, 'must be a string');
    return text;
  };
  const nonEmptyString = (field: string): string => {
    const text = string(field);
    if (text.trim() === '') fail(field, 'must not be empty');
    return text;
  };
  const webUrl = (field: string): string => {
    const text = string(field);
    if (!isWebUrl(text)) fail(field, 'must be an http(s) URL');
    return text;
  };
  const integer = (field: string, minimum: number, maximum: number, fallback: number): number => {
    if (!has(field)) return fallback;
    const number = value(field);
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < minimum || number > maximum) {
      fail(field, `must be an integer from ${minimum} to ${maximum}`);
    }
    return number;
  };
  const boolean = (field: string, fallback: boolean): boolean => {
    if (!has(field)) return fallback;
    const flag = value(field);
    if (typeof flag !== 'boolean') fail(field, 'must be true or false');
    return flag;
  };
  const oneOf = <Choice extends string>(field: string, choices: readonly Choice[], fallback: Choice): Choice => {
    if (!has(field)) return fallback;
    const text = string(field);
    if (!(choices as readonly string[]).includes(text)) fail(field, `must be one of ${choices.join(', ')}`);
    return text as Choice;
  };
  const address = (field: string): string | undefined => {
    if (!has(field)) return undefined;
    const text = string(field);
    const problem = section.addressProblem(text);
    if (problem !== undefined) fail(field, problem);
    return text;
  };
  /** Refuses tuning given without the field that makes the network live: it would be silently ignored. */
  const requireFor = (needed: string, tuning: readonly string[]): void => {
    if (has(needed)) return;
    const stray = tuning.find(has);
    if (stray !== undefined) fail(stray, `needs ${needed}`);
  };
  /** A family that computes addresses from the factories cannot be live without both. */
  const requireFactories = (because: string): void => {
    if (section.mainFactory === '' || section.invoiceFactory === '') {
      fail(section.mainFactory === '' ? 'main_factory' : 'invoice_factory', `must be set on a network with ${because} (npx ivory contracts deploy prints it)`);
    }
  };
  return { value, has, string, nonEmptyString, webUrl, integer, boolean, oneOf, address, requireFor, requireFactories };
}

export function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
