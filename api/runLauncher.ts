/** The run launcher lives in runtime/ (the worker starts queued runs too, issue 33); the API's import path stays. */
export { RunLauncher } from '../runtime/runLauncher.js';
