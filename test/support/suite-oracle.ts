/**
 * Scripted LLM answers for the sample suites (resources/workspace/suites): a correct script per task, so
 * the suites run against the scripted LLM server; tests make one "model" answer differently.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from './llm-server.ts';

export const fence = (code: string): string => '```python\n' + code + '\n```';

/** The task of a request (the `Task: ...` line of the last user message). */
export function taskOf(req: RecordedRequest): string {
  const messages = (req.body['messages'] ?? []) as { role: string; content: unknown }[];
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return /Task: (.*)/.exec(text)?.[1]?.trim() ?? '';
}

export const modelOf = (req: RecordedRequest): string => String(req.body['model'] ?? '');

/** Task (as the suites write it, variables filled) -> a correct script body. */
export const ORACLE: Record<string, string> = {
  'What is the name of user u1?': 'emit_result(get_user(user_id="u1").data["name"])',
  'What is the name of user u3?': 'emit_result(get_user(user_id="u3").data["name"])',
  'How many units of product p3 are in stock in the Tokyo warehouse?':
    'emit_result(check_inventory(product_id="p3", warehouse="Tokyo").data["in_stock"])',
  'List the ids of the pending orders.':
    'emit_result([o["id"] for o in get_orders().data if o["status"] == "pending"])',
  'How much have gold-tier customers spent in total on orders that were not cancelled?': [
    'orders = get_orders().data',
    'total = 0',
    'for o in orders:',
    '    if o["status"] != "cancelled" and get_user(user_id=o["user_id"]).data["tier"] == "gold":',
    '        total += o["total"]',
    'emit_result(round(total, 2))',
  ].join('\n'),
  'In which city does the customer of order o4 live?': [
    'order = [o for o in get_orders().data if o["id"] == "o4"][0]',
    'emit_result(get_user(user_id=order["user_id"]).data["city"])',
  ].join('\n'),
  'Return product p2 as an object with its name and price.': [
    'p = get_product(product_id="p2").data',
    'emit_result({"name": p["name"], "price": p["price"]})',
  ].join('\n'),
  'Which warehouses have no units of product p2? Check New York, Berlin and Tokyo.': [
    'out = []',
    'for w in ["New York", "Berlin", "Tokyo"]:',
    '    if check_inventory(product_id="p2", warehouse=w).data["in_stock"] == 0:',
    '        out.append(w)',
    'emit_result(out)',
  ].join('\n'),
  'List the ids of the open tickets.': 'emit_result([t["id"] for t in list_tickets(status="open").data])',
  'What is the subject of ticket 101?': 'emit_result(get_ticket(ticket_id=101).data["subject"])',
  'What is the subject of ticket 104?': 'emit_result(get_ticket(ticket_id=104).data["subject"])',
  'Find the knowledge base article that helps with ticket 101 and return its title.': [
    't = get_ticket(ticket_id=101).data',
    'hits = search_kb(query="dock").data',
    'emit_result(hits[0]["title"] if hits else t["subject"])',
  ].join('\n'),
  "Add the note 'escalated' to every high-priority ticket and return their ids.": [
    'ids = []',
    'for t in list_tickets().data:',
    '    if t["priority"] == "high":',
    '        add_note(ticket_id=t["id"], text="escalated")',
    '        ids.append(t["id"])',
    'emit_result(ids)',
  ].join('\n'),
  'What does the refund policy say?': 'emit_result(search_kb(query="refund").data[0]["body"])',
  'How many tickets are pending?': 'emit_result(len(list_tickets(status="pending").data))',
};

/** The scripted server's answer to a suite task: the oracle's script, fenced (none for other tasks). */
export const oracleAnswer = (req: RecordedRequest): string | undefined => {
  const body = ORACLE[taskOf(req)];
  return body === undefined ? undefined : fence(body);
};

/** An answer whose script spins until something ends it (a timeout, a signal, a kill). */
export const SPIN_FOREVER = fence('while True:\n    pass\nemit_result(1)\n');

/** Points the sample workspace's provider at the scripted server and adds prices. */
export function scriptedConfig(dir: string, url: string): void {
  const file = join(dir, '.toolsmith/config.toml');
  const text = readFileSync(file, 'utf8')
    .replace('base_url = "http://127.0.0.1:11434/v1"', `base_url = "${url}"`)
    .replace('standby = 1', 'standby = 0');
  writeFileSync(
    file,
    `${text}\n[prices.good]\nprompt = 1.0\ncompletion = 2.0\n\n[prices.weak]\nprompt = 0.5\ncompletion = 1.0\n`,
  );
}
