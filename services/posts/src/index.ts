import { runMain } from '@social/runtime';
import { loadPostsConfig } from './config';
import { PostsService } from './posts-service';

runMain('posts', () => PostsService.create(loadPostsConfig()));
