// `npm start`'s metrics ports: the defaults when free, another free port when not, the operator's choice as it is,
// `off` honoured; and the URLs it records in runtime.json and prints.
import { localMetricsPorts, type PortProbe } from '../../../src/metrics/local';
import { metricsListenFromEnv, urlOf } from '../../../src/metrics/server';

const probe = (busy: number[], free: number[] = [40001, 40002, 40003]): PortProbe => ({
  isPortFree: async (port) => !busy.includes(port),
  freePort: async () => free.shift()!,
});

test('defaults when free, on loopback', async () => {
  const r = await localMetricsPorts({}, probe([]));
  expect(r.env).toEqual({ METRICS_PORT: '9464', WORKER_METRICS_PORT: '9465' });
  expect(r.urls).toEqual({
    metricsUrl: 'http://127.0.0.1:9464/metrics',
    workerMetricsUrl: 'http://127.0.0.1:9465/metrics',
  });
});

test("a busy default is replaced by a free port, never the other server's", async () => {
  const r = await localMetricsPorts({}, probe([9464, 9465], [40001, 40001, 40002]));
  expect(r.env).toEqual({ METRICS_PORT: '40001', WORKER_METRICS_PORT: '40002' });
  expect(r.urls.workerMetricsUrl).toBe('http://127.0.0.1:40002/metrics');
});

test("the operator's ports and host are used as they are; off leaves no URL", async () => {
  const r = await localMetricsPorts(
    { METRICS_PORT: '9100', WORKER_METRICS_PORT: 'off', METRICS_HOST: '10.0.0.5' },
    probe([9100]),
  );
  expect(r.env).toEqual({ METRICS_PORT: '9100', WORKER_METRICS_PORT: 'off' });
  expect(r.urls).toEqual({ metricsUrl: 'http://10.0.0.5:9100/metrics' });
});

test('settings: loopback by default, a bad port is refused', () => {
  expect(metricsListenFromEnv('METRICS_PORT', 9464, {})).toEqual({ port: 9464, host: '127.0.0.1' });
  expect(metricsListenFromEnv('METRICS_PORT', 9464, { METRICS_PORT: 'OFF' })).toBeUndefined();
  expect(() => metricsListenFromEnv('METRICS_PORT', 9464, { METRICS_PORT: 'abc' })).toThrow(/METRICS_PORT/);
  expect(() => metricsListenFromEnv('METRICS_PORT', 9464, { METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  expect(urlOf('0.0.0.0', 9464)).toBe('http://127.0.0.1:9464/metrics');
  expect(urlOf('::1', 9464)).toBe('http://[::1]:9464/metrics');
});
