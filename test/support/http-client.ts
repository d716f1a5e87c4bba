import { Agent, setGlobalDispatcher } from 'undici';

/**
 * fetch() in the test processes (loaded with --require: .mocharc.json and the package's test
 * scripts) lets a connection idle at most 1 s before closing it, where Node's default keeps it up
 * to 4 s: the service closes an idle HTTP/1.1 connection after 5 s (KEEP_ALIVE_TIMEOUT_MS), and
 * undici checks its idle connections on a clock that ticks once a second, so a request could
 * be sent on a connection in the very moment the service closed it (ECONNRESET), most of all on
 * a busy machine. The tests' services run in the same process, so their calls to a fake model
 * go through this agent too.
 */
setGlobalDispatcher(new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 }));
