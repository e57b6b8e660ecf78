import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * Chain ids are stored as `bigint` (some networks' ids exceed 2³¹), which both
 * drivers hand back as strings, like every int8 (money must never pass through
 * a JavaScript number). A chain id is no amount: the catalogue only admits ids
 * a number carries exactly, so every `chain_id` column of a result is read
 * back as the number the rest of the code compares it with.
 */
export class ChainIdAsNumber implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const { rows } = args.result;
    if (rows.length === 0 || !('chain_id' in (rows[0] as UnknownRow))) return args.result;
    for (const row of rows) {
      const value = row.chain_id;
      if (typeof value === 'string') row.chain_id = Number(value);
    }
    return args.result;
  }
}
