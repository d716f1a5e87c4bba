import { expect } from 'chai';
import { requestedStreamProtocol } from '../../../src/adapters/http/chat-stream-encoders.js';
import { RequestValidationError } from '../../../src/adapters/http/validate.js';

describe('requestedStreamProtocol (the X-Stream-Protocol header, for every stream route)', () => {
  it('names no protocol when the header is absent or blank', () => {
    expect(requestedStreamProtocol('')).to.equal(undefined);
    expect(requestedStreamProtocol('   ')).to.equal(undefined);
  });

  it('takes a known protocol in any case, spaces around it ignored', () => {
    expect(requestedStreamProtocol('events')).to.equal('events');
    expect(requestedStreamProtocol(' UI-Message ')).to.equal('ui-message');
  });

  it('refuses any other with a 400 naming the header', () => {
    expect(() => requestedStreamProtocol('websocket'))
      .to.throw(RequestValidationError)
      .with.property('message', 'X-Stream-Protocol: must be one of events, ui-message');
  });
});
