import { runMain } from '@social/runtime';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

runMain('gateway', () => GatewayService.create(loadGatewayConfig()));
