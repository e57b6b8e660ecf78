/**
 * Who acts through the operator API or the `ivory admin` command. The
 * operator token is one principal, so the actor is always "operator"; what
 * tells two operators apart is where the call came from.
 */
export interface OperatorActor {
  /** `api`: the operator API (with the client's address); `cli`: the ivory command on the host. */
  readonly source: 'api' | 'cli';
  /** The request's client address (after TRUST_PROXY); null from the command line. */
  readonly ip: string | null;
}

export const OPERATOR = 'operator';

export const CLI_ACTOR: OperatorActor = Object.freeze({ source: 'cli', ip: null });
