import { type Span } from '@opentelemetry/api';
import { type IncomingMessage } from 'node:http';

/** The span of each incoming request while tracing is on, as the HTTP instrumentation started it. */
export const serverSpans = new WeakMap<IncomingMessage, Span>();
