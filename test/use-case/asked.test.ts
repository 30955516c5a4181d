// askedOf names the field a secret reached or decided for each parameter it reads, from the rendered
// request's taint (secretAt), never from the text: cluster-auth refuses to print such a value and
// doctor does not compare it with the token's aud.
import { describe, expect, it } from 'vitest';
import { askedOf } from '../../src/use-case/cluster-auth/asked.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('askedOf', () => {
  it('a form or query parameter a secret reached is named by its field; one of the config is not', () => {
    const asked = askedOf([
      {
        url: 'https://idp.example/token?resource=https%3A%2F%2Fr.example',
        headers: FORM,
        body: 'audience=a&client_id=kubectl',
        secretAt: { query: {}, form: { audience: 'webAPIProviderConfig.form.audience' } },
      },
    ]);
    expect(asked).toEqual({
      audiences: [
        { parameter: 'resource', value: 'https://r.example' },
        { parameter: 'audience', value: 'a', secretFrom: 'webAPIProviderConfig.form.audience' },
      ],
      clientId: { value: 'kubectl' },
    });
  });

  it("a parameter of a URL or a raw body a secret reached is the whole field's", () => {
    const asked = askedOf([
      {
        url: 'https://idp.example/token?audience=b',
        headers: FORM,
        body: 'client_id=x',
        secretAt: { url: 'webAPIProviderConfig.url', body: 'webAPIProviderConfig.body', query: {}, form: {} },
      },
    ]);
    expect(asked).toEqual({
      audiences: [{ parameter: 'audience', value: 'b', secretFrom: 'webAPIProviderConfig.url' }],
      clientId: { value: 'x', secretFrom: 'webAPIProviderConfig.body' },
    });
  });
});
