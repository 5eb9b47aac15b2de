import * as grpc from '@grpc/grpc-js';
import { grpcServerHandling } from '@social/metrics';
import { HEALTH_SERVICE } from './health';

/**
 * Times every call the server takes into grpc_server_handling_seconds{service, method, code}. A
 * grpc-js server interceptor, so unary and streaming calls are measured alike. Health checks are
 * left out: Kubernetes probes them every few seconds and they are not traffic.
 */
export function metricsInterceptor(): grpc.ServerInterceptor {
  const histogram = grpcServerHandling();
  return (descriptor, call) => {
    // Paths look like /posts.v1.PostsService/GetPost.
    const [, service = 'unknown', method = 'unknown'] = descriptor.path.split('/');
    if (service === HEALTH_SERVICE) return new grpc.ServerInterceptingCall(call);
    const stop = histogram.startTimer({ service, method });
    let recorded = false;
    const record = (code: string) => {
      if (recorded) return;
      recorded = true;
      stop({ code });
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => next({ onCancel: () => record(grpc.status[grpc.status.CANCELLED]) }),
      sendStatus: (status, next) => {
        record(grpc.status[status.code] ?? String(status.code));
        next(status);
      },
    });
  };
}
