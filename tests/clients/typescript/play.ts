// The calls tests/clients/play.py makes, written against the TypeScript client generated
// from openapi/warlog.openapi.json (openapi-typescript's types with openapi-fetch). tsc
// checks every path, parameter, body and answer against the document; a field the document
// lost or renamed is a compile error here.
import createClient from "openapi-fetch";
import type { components, paths } from "./warlog";

type Order = components["schemas"]["OrderInput"];

export async function play(baseUrl: string, adminToken: string, gmToken: string): Promise<string> {
  const admin = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${adminToken}` } });
  const gm = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${gmToken}` } });
  const open = createClient<paths>({ baseUrl });

  for (const handle of ["ann", "bob", "cat", "dan", "eve"]) {
    const { error } = await admin.POST("/v1/players", { body: { handle, display_name: handle } });
    if (error) throw new Error(error.detail ?? error.title);
  }
  const players = await open.GET("/v1/players", { params: { query: { q: "a", limit: 10 } } });
  const handles: string[] = players.data?.players.map((p) => p.handle) ?? [];

  await admin.POST("/v1/tournaments", {
    body: {
      name: "Client Cup",
      rounds: 2,
      deadlines: ["2027-01-10T18:00:00Z", "2027-02-10T18:00:00Z"],
      short_tables: "byes",
    },
  });
  const tournaments = await open.GET("/v1/tournaments", { params: { query: { state: "open" } } });
  const cups: string[] = tournaments.data?.tournaments.map((t) => t.name) ?? [];

  const created = await gm.POST("/v1/games", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { ruleset: "cutthroat", players: handles.length === 5 ? handles : ["ann", "bob", "cat", "dan", "eve"] },
  });
  if (!created.data) throw new Error(created.error?.detail ?? "no game");
  const id = created.data.game_id;

  // Orders of every kind the discriminator names, each with its own type.
  const orders: Order[] = [
    { type: "purchase", units: { INF: 1 } },
    { type: "place", territory: "Russia", units: { INF: 1 } },
    { type: "move", units: { ARM: 1 }, path: ["East Europe", "Karelia"] },
    { type: "fight_battle", territory: "Karelia", order_of_loss: ["INF"] },
    { type: "set_order_of_loss", units: ["INF", "ARM"] },
    { type: "set_standing_orders", territory: "Karelia", order_of_loss: ["INF"] },
    { type: "end_phase" },
  ];
  const view = await open.GET("/v1/games/{id}", { params: { path: { id } } });
  const turn: string = view.data?.turn ?? "russia";
  const sent = await gm.POST("/v1/games/{id}/orders", {
    params: { path: { id }, header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { power: turn, orders: [orders[orders.length - 1]] },
  });
  const version: number | undefined = sent.data?.version;

  const battles = await open.GET("/v1/games/{id}/battles", { params: { path: { id } } });
  const fought: number = battles.data?.battles.length ?? 0;
  await gm.POST("/v1/games/{id}/end", {
    params: { path: { id }, header: { "Idempotency-Key": crypto.randomUUID() } },
  });
  const placements = await open.GET("/v1/games/{id}/placements", { params: { path: { id } } });
  const placed: number = placements.data?.placements.length ?? 0;
  const feed = await open.GET("/v1/events", { params: { query: { limit: 50 } } });
  const page = feed.data;
  const caughtUp: boolean = page !== undefined && "caught_up" in page ? page.caught_up : false;
  return `${id} ${version} ${fought} ${placed} ${cups.length} ${caughtUp}`;
}
