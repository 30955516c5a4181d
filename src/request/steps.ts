// steps: the requests that run, in order, before the main one. Each answer is a JSON object that
// later templates read as steps.<name>; every string in it is a secret.
import { CredentialError, ResponseError } from '../errors.js';
import type { StepConfig } from '../config/schema.js';
import type { Redactor } from '../redact/redactor.js';
import type { TemplateRenderer } from '../template/renderer.js';
import { requestRoot, type RenderedRequest } from './build.js';

export interface StepDeps {
  /** Each step's answer is given to the templates of the steps after it. */
  renderer: TemplateRenderer;
  /** Renders a step's request with the answers so far (the field paths under `root`). */
  render: (step: StepConfig, root: string) => Promise<RenderedRequest>;
  /** Sends one request and returns its parsed JSON answer. */
  call: (request: RenderedRequest, step: StepConfig) => Promise<unknown>;
  redactor: Redactor;
  trace: (line: string) => void;
}

/** Runs every step; returns their answers by name. */
export async function runSteps(steps: readonly StepConfig[], deps: StepDeps): Promise<Record<string, unknown>> {
  const { renderer, redactor } = deps;
  const answers: Record<string, unknown> = {};
  for (const step of steps) {
    renderer.setSteps(answers);
    deps.trace(`steps.${step.name}`);
    try {
      const answer = await deps.call(await deps.render(step, requestRoot(step)), step);
      if (answer === null || typeof answer !== 'object') {
        throw new ResponseError('RESPONSE_NOT_OBJECT', `the token API answered JSON ${answer === null ? 'null' : typeof answer}, expected an object`);
      }
      // Whatever a step answers may be a credential: every string of it is a secret.
      registerStrings(answer, redactor);
      Object.defineProperty(answers, step.name, { value: answer, enumerable: true });
    } catch (error) {
      // The step is named in every error of its own, whatever its exit code.
      if (error instanceof CredentialError) error.message = `steps.${step.name}: ${error.message}`;
      throw error;
    }
  }
  return answers;
}

function registerStrings(value: unknown, redactor: Redactor, depth = 0): void {
  if (typeof value === 'string') redactor.add(value);
  else if (depth < 64 && typeof value === 'object' && value !== null) for (const item of Object.values(value)) registerStrings(item, redactor, depth + 1);
}

