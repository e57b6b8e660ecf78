import type { IvoryTool } from '../tool.js';
import { getTermsTool, listNetworksTool } from './catalogue.tools.js';
import { cancelInvoiceTool, setDepositEnabledTool } from './change-issuance.tools.js';
import { createDepositTool, createInvoiceTool, createMultiOptionInvoiceTool } from './create-issuance.tools.js';
import { listPaymentsTool } from './payments.tools.js';
import { getIssuanceTool, listIssuancesTool } from './read-issuances.tools.js';
import { simulateCloseTool, simulatePaymentTool, simulateRevertTool } from './sandbox.tools.js';
import { listDeliveriesTool, listEventsTool, registerWebhookTool, replayDeliveryTool } from './webhooks.tools.js';

/** Every tool, in the order a host lists them: discovery, invoices and deposits, history, webhooks, sandbox. */
export const TOOLS: readonly IvoryTool[] = [
  listNetworksTool,
  getTermsTool,
  createInvoiceTool,
  createMultiOptionInvoiceTool,
  createDepositTool,
  getIssuanceTool,
  listIssuancesTool,
  cancelInvoiceTool,
  setDepositEnabledTool,
  listPaymentsTool,
  listEventsTool,
  listDeliveriesTool,
  replayDeliveryTool,
  registerWebhookTool,
  simulatePaymentTool,
  simulateCloseTool,
  simulateRevertTool,
];
