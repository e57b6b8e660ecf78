export { appendEvent, appendEvents, type AppendDeps, type AppendedEvent, type EventSubscriber, type NewEvent } from './append-event.js';
export {
  EVENT_GROUPS,
  EVENT_TYPES,
  INTERNAL_SIGNALS,
  filtersMatch,
  groupOf,
  isEventType,
  type EventEnvelope,
  type EventType,
} from './event.js';
export { listIssuanceEvents, type StoredEvent } from './events.repository.js';
