import { runMain } from '@social/runtime';
import { loadInsightsConfig } from './config';
import { InsightsService } from './insights-service';

runMain('insights', () => InsightsService.create(loadInsightsConfig()));
