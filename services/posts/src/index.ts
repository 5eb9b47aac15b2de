// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadPostsConfig } from './config';
import { PostsService } from './posts-service';

runMain('posts', () => PostsService.create(loadPostsConfig()));
