export { DEFAULT_CATALOGUE_FILE, listedNetwork, loadCatalogue } from './catalogue.js';
export type {
  Catalogue,
  ChainAccess,
  Eip712Domain,
  FeeKind,
  FeeTerms,
  IsLive,
  ListedNetwork,
  Network,
  NetworkFamily,
  PublicNetwork,
  PublicToken,
  SweepTerms,
  Token,
  TokenIcon,
} from './network.js';
export { catalogueRoutes, PublicNetworkSchema } from './catalogue.routes.js';
export { tokenSpellings } from './token-spellings.js';
