import { ConfigurationError } from '../errors.js';
import type { EventContext, GatehouseEvent, Logger } from '../events.js';
import { type AuditSink, auditRecord } from './audit-record.js';

type Emit = (event: GatehouseEvent) => void;

/** The instance's two ways to emit: outside a request, and bound to one (for its client address). */
export interface Emitter {
  readonly emit: Emit;
  /** `undefined` when nothing listens, so that requests bind nothing. */
  readonly emitFor: ((request: Request) => Emit) | undefined;
}

export interface EmitterSettings {
  readonly onEvent: ((event: GatehouseEvent, context: EventContext) => void) | undefined;
  readonly audit: readonly AuditSink[];
  readonly instance: string;
  readonly now: () => number;
  readonly clientAddress: (request: Request) => string | undefined;
  readonly logger: Logger;
}

/**
 * Delivers each event to `onEvent` and to every audit sink, with its context (time, instance,
 * client address) added here, once, rather than by each of the handlers that emit. A listener that
 * throws or rejects is logged and never fails the request.
 */
export function eventEmitter(settings: EmitterSettings): Emitter {
  const { onEvent, audit, instance, now, logger } = settings;
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new ConfigurationError('onEvent: expected a function.', { option: 'onEvent' });
  if (!onEvent && audit.length === 0) return { emit: () => {}, emitFor: undefined };
  const deliver = (event: GatehouseEvent, clientAddress: string | undefined) => {
    const context: EventContext =
      clientAddress === undefined ? { time: now(), instance } : { time: now(), instance, clientAddress };
    try {
      onEvent?.(event, context);
    } catch (error) {
      logger.error('gatehouse: onEvent threw', error);
    }
    if (audit.length === 0) return;
    const record = auditRecord(event, context);
    for (const sink of audit) {
      try {
        const written = sink.write(record);
        if (written instanceof Promise)
          written.catch((error) => logger.error('gatehouse: an audit sink failed', error));
      } catch (error) {
        logger.error('gatehouse: an audit sink failed', error);
      }
    }
  };
  return {
    emit: (event) => deliver(event, undefined),
    emitFor: (request) => {
      let address: string | undefined;
      try {
        address = settings.clientAddress(request);
      } catch {}
      return (event) => deliver(event, address || undefined);
    },
  };
}

/**
 * The `audit` option as a list of sinks, then `own`, a sink of the instance itself (the admin
 * API's recorder) if any; throws `ConfigurationError` for anything else.
 */
export function auditSinks(
  given: AuditSink | readonly AuditSink[] | undefined,
  own?: AuditSink,
): readonly AuditSink[] {
  if (given === undefined) return own === undefined ? [] : [own];
  const list = Array.isArray(given) ? (given as readonly AuditSink[]) : [given as AuditSink];
  list.forEach((sink, index) => {
    if (!sink || typeof sink.write !== 'function') {
      const option = Array.isArray(given) ? `audit[${index}]` : 'audit';
      throw new ConfigurationError(
        `${option}: expected an audit sink (an object with write(record)), e.g. jsonLinesAuditSink(line => process.stdout.write(line)).`,
        { option },
      );
    }
  });
  return own === undefined ? list : [...list, own];
}
