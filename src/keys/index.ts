/** What other modules may use of keys. */
export { keysRoutes } from './keys.routes.js';
export { ipAllowed, resolveApiKey } from './resolve-api-key.js';
export { API_KEY_TOKEN_PREFIX, MAX_ALLOWED_IPS, MAX_LIVE_KEYS_PER_SHOP } from './api-key.js';
export { ApiKeyCache, API_KEYS_CHANNEL } from './api-key-cache.js';
export { noteApiKeysChanged } from './api-keys-changed.js';
