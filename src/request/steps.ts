// steps: the requests that run, in order, before the main one. Each answer is a JSON object that
// later templates read as steps.<name>; every string in it is a secret.
import { CredentialError, RequestError, ResponseError } from '../errors.js';
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
  trace: (line: string, framed?: boolean) => void;
  /** Whether the whole-call deadline has passed. */
  expired: () => boolean;
}

/** Runs every step; returns their answers by name. */
export async function runSteps(steps: readonly StepConfig[], deps: StepDeps): Promise<Record<string, unknown>> {
  const { renderer, redactor } = deps;
  const answers: Record<string, unknown> = {};
  for (const step of steps) {
    renderer.setSteps(answers);
    deps.trace(`steps.${step.name}`, true);
    try {
      const answer = await deps.call(await deps.render(step, requestRoot(step)), step);
      if (answer === null || typeof answer !== 'object') {
        throw new ResponseError(
          'RESPONSE_NOT_OBJECT',
          `the token API answered JSON ${answer === null ? 'null' : typeof answer}, expected an object`,
          { framed: true },
        );
      }
      // Whatever a step answers may be a credential: every string of it is a secret.
      registerAnswer(answer, redactor, deps.expired);
      Object.defineProperty(answers, step.name, { value: answer, enumerable: true });
    } catch (error) {
      // The step is named in every error of its own, whatever its exit code.
      if (error instanceof CredentialError) error.message = `steps.${step.name}: ${error.message}`;
      throw error;
    }
  }
  return answers;
}

/**
 * Registers every string of an answer, and every number and boolean in its JSON text, at any depth:
 * a walk with a stack of its own, one visit per value, so an answer nested 400 000 deep costs what
 * its size does and cannot overflow the call stack. The redactor keeps what is too short to hide.
 */
function registerAnswer(answer: unknown, redactor: Redactor, expired: () => boolean): void {
  const stack: unknown[] = [answer];
  for (let visited = 1; stack.length > 0; visited++) {
    if ((visited & 0xfff) === 0 && expired()) {
      throw new RequestError(
        'DEADLINE',
        'its answer could not be taken in within the whole-call deadline (--timeout)',
        { framed: true },
      );
    }
    const value = stack.pop();
    if (typeof value === 'string') redactor.add(value);
    else if (typeof value === 'number' || typeof value === 'boolean') redactor.add(JSON.stringify(value));
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) stack.push(item);
  }
}
