import 'reflect-metadata';
// Before any module loads jsonld (it wraps what they take from jsonld's context module).
import './credentials/jsonld-context-memo.js';
import { existsSync } from 'node:fs';
import { startTracing } from './observability/tracing.js';

// Values already in the environment win over the file.
if (existsSync('.env')) process.loadEnvFile('.env');
// Before the modules it instruments (http, express, Nest, pg) are loaded: they load below.
const tracing = await startTracing(process.env);
const { main, exitOnStartFailure } = await import('./bootstrap/run-from-command-line.js');
await main(tracing).catch(exitOnStartFailure);
