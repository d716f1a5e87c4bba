import { expect } from 'chai';
import OpenAI from 'openai';
import type { ClientOptions } from 'openai';
import type { IdentityTestService } from './identity-service.js';
import { openAiClientFor } from './openai-client.js';
import type { TestService } from './service.js';

/**
 * OpenAI's SDK as `user` uses the service's Responses and Conversations APIs: its API key names
 * the user (identity off), or is a token of the user's (identity on: npm run test:identity).
 * Every answer is checked against the service's /openapi.json (openAiClientFor).
 */
export async function responsesClient(service: TestService, user: string, options: ClientOptions = {}): Promise<OpenAI> {
  const provider = (service as Partial<IdentityTestService>).provider;
  const apiKey = provider ? await provider.token(user) : user;
  return openAiClientFor(service, { apiKey, ...options });
}

/** The SDK's error of a call that must fail. */
export async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

export async function expectStatus(call: Promise<unknown>, status: number): Promise<void> {
  expect((await failure(call)).status).to.equal(status);
}
