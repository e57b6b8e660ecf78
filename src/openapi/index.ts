export { legacyAliasOf, openApiOptions, operationKey, type DocumentSettings } from './document.js';
export { OPERATIONS, TAGS, type OperationDoc } from './operations.js';
