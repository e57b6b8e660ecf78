// oidc-provider ships no type declarations; this is the little of its API the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Interaction {
    readonly uid: string;
    readonly prompt: { readonly name: string };
    readonly params: Readonly<Record<string, unknown>>;
    readonly session?: { readonly accountId?: string };
    readonly grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Grant: {
      new (properties: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
  }
}
