"""A short Cut-Throat game played through the Python client that openapi-python-client
generated from openapi/warlog.openapi.json: players registered, a game created, orders of
every kind built from the client's own models (and the ones a Cut-Throat game's first two
rounds allow sent), a battle fought with the server's dice, the game ended, placements
read, the indexes walked and the game's log exported for `warlog audit`.

Usage: play.py BASE_URL ADMIN_TOKEN GM_TOKEN EXPORT_PATH
"""

import json
import sys
import uuid

from warlog_client import AuthenticatedClient, Client
from warlog_client.api.games import (
    battle_odds,
    create_game,
    end_game,
    game_battles,
    game_board_svg,
    game_detail,
    game_placements,
    submit_orders,
    submit_turn,
)
from warlog_client.api.league import player_detail, player_list, register_player
from warlog_client.api.tournaments import create_tournament, tournament_list
from warlog_client.models import (
    AcceptAgreementOrder,
    AirDropOrder,
    AirRaidOrder,
    ApplyForWarLoanOrder,
    AvoidCombatOrder,
    BreakAgreementOrder,
    BuildInfrastructureOrder,
    CreateGame,
    CreateTournament,
    DevelopWeaponsOrder,
    DropAtomicBombOrder,
    EndPhaseOrder,
    ExpandComplexOrder,
    FightBattleOrder,
    FireRocketOrder,
    GameView,
    GoPassiveOrder,
    GrantPermissionOrder,
    MoveOrder,
    OddsRequest,
    OfferAgreementOrder,
    OrdersRequest,
    PlaceOrder,
    PlacementsView,
    PlayerList,
    Problem,
    PurchaseOrder,
    RailOrder,
    RegisterPlayer,
    RepairBattleshipOrder,
    RepayWarLoanOrder,
    RevokePermissionOrder,
    RollInitiativeOrder,
    RollReinforcementsOrder,
    RollStartZonesOrder,
    SetOrderOfLossOrder,
    SetStandingOrdersOrder,
    SuppressGuerrillasOrder,
    TournamentList,
    TurnPreview,
    TurnRequest,
    UnitCounts,
    WriteAccepted,
)
from warlog_client.models.end_phase_order_type import EndPhaseOrderType
from warlog_client.models.fight_battle_order_type import FightBattleOrderType
from warlog_client.models.move_order_type import MoveOrderType
from warlog_client.models.place_order_type import PlaceOrderType
from warlog_client.models.purchase_order_type import PurchaseOrderType
from warlog_client.models.set_standing_orders_order_type import SetStandingOrdersOrderType

PLAYERS = ["ann", "bob", "cat", "dan", "eve"]


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def units(**counts):
    bag = UnitCounts()
    for code, count in counts.items():
        bag[code] = count
    return bag


# One order of each kind the document names: the client's model for it, and what it sends.
EVERY_KIND = [
    (AcceptAgreementOrder, {"type": "accept_agreement", "from": "germany"}),
    (AirDropOrder, {"type": "air_drop", "bombers": 1, "troops": {"INF": 1}, "path": ["Germany", "Karelia"]}),
    (AirRaidOrder, {"type": "air_raid", "units": {"BMR": 1}, "path": ["Germany", "Karelia"]}),
    (ApplyForWarLoanOrder, {"type": "apply_for_war_loan"}),
    (AvoidCombatOrder, {"type": "avoid_combat", "territory": "Karelia"}),
    (BreakAgreementOrder, {"type": "break_agreement", "with": "germany"}),
    (BuildInfrastructureOrder, {"type": "build_infrastructure", "territory": "Karelia"}),
    (DevelopWeaponsOrder, {"type": "develop_weapons", "dice": 1}),
    (DropAtomicBombOrder, {"type": "drop_atomic_bomb", "territory": "Karelia"}),
    (EndPhaseOrder, {"type": "end_phase"}),
    (ExpandComplexOrder, {"type": "expand_complex", "territory": "Russia"}),
    (FightBattleOrder, {"type": "fight_battle", "territory": "Karelia", "order_of_loss": ["INF"]}),
    (FireRocketOrder, {"type": "fire_rocket", "from": "Germany", "target": "Karelia"}),
    (GoPassiveOrder, {"type": "go_passive"}),
    (GrantPermissionOrder, {"type": "grant_permission", "to": "germany", "permission": "pass"}),
    (MoveOrder, {"type": "move", "units": {"INF": 1}, "path": ["Russia", "Karelia"]}),
    (OfferAgreementOrder, {"type": "offer_agreement", "with": "germany", "terms": "peace"}),
    (PlaceOrder, {"type": "place", "territory": "Russia", "units": {"INF": 1}}),
    (PurchaseOrder, {"type": "purchase", "units": {"INF": 1}}),
    (RailOrder, {"type": "rail", "units": {"INF": 1}, "path": ["Russia", "Karelia"]}),
    (RepairBattleshipOrder, {"type": "repair_battleship", "sea_zone": "5 Sea Zone"}),
    (RepayWarLoanOrder, {"type": "repay_war_loan", "amount": 5}),
    (RevokePermissionOrder, {"type": "revoke_permission", "to": "germany", "permission": "pass"}),
    (RollInitiativeOrder, {"type": "roll_initiative"}),
    (RollReinforcementsOrder, {"type": "roll_reinforcements"}),
    (RollStartZonesOrder, {"type": "roll_start_zones"}),
    (SetOrderOfLossOrder, {"type": "set_order_of_loss", "units": ["INF", "ARM"]}),
    (SetStandingOrdersOrder, {"type": "set_standing_orders", "territory": "Karelia", "order_of_loss": ["INF"]}),
    (SuppressGuerrillasOrder, {"type": "suppress_guerrillas", "territory": "Karelia"}),
]


def main():
    base, admin_token, gm_token, export_path = sys.argv[1:5]
    # Each seated player's own token, `handle=token`: a game its master played alone is not
    # rated, so each player gives an order of their own before the end.
    player_tokens = dict(arg.split("=", 1) for arg in sys.argv[5:])
    public = Client(base_url=base, raise_on_unexpected_status=True)
    admin = AuthenticatedClient(base_url=base, token=admin_token, raise_on_unexpected_status=True)
    gm = AuthenticatedClient(base_url=base, token=gm_token, raise_on_unexpected_status=True)

    # Every kind of order is a model of its own, and a request of them all reads back as
    # the same kinds: the document's discriminator is what the generator needs for this.
    request = OrdersRequest.from_dict({"orders": [wire for _, wire in EVERY_KIND]})
    check([type(o) for o in request.orders] == [model for model, _ in EVERY_KIND],
          "each order reads back as its own model")
    check(request.to_dict()["orders"] == [wire for _, wire in EVERY_KIND],
          "each order is sent as it was written")

    # Players.
    for handle in PLAYERS:
        registered = register_player.sync(client=admin, body=RegisterPlayer(handle=handle, display_name=handle.title()))
        check(not isinstance(registered, Problem), f"registered {handle}")
    found = player_list.sync(client=public, q="A", limit=1)
    check(isinstance(found, PlayerList) and [p.handle for p in found.players] == ["ann"], "the player index finds ann by prefix")
    check(found.next_ is None or "after=ann" in found.next_, "the index pages on")

    # A tournament, found in the index.
    tournament = create_tournament.sync(client=admin, body=CreateTournament.from_dict({
        "name": "Client Cup", "rounds": 2, "short_tables": "byes",
        "deadlines": ["2027-01-10T18:00:00Z", "2027-02-10T18:00:00Z"]}))
    check(not isinstance(tournament, Problem), f"tournament created: {tournament}")

    # The game.
    game = create_game.sync(client=gm, body=CreateGame(ruleset="cutthroat", players=PLAYERS),
                            idempotency_key=str(uuid.uuid4()))
    check(isinstance(game, GameView), f"game created: {game}")
    game_id = game.game_id

    def view():
        seen = game_detail.sync(client=public, id=game_id)
        check(isinstance(seen, GameView), f"game read: {seen}")
        return seen

    def order(power, *orders, expect_ok=True):
        answer = submit_orders.sync_detailed(
            client=gm, id=game_id,
            body=OrdersRequest(orders=list(orders), power=power),
            idempotency_key=str(uuid.uuid4()),
        )
        if expect_ok:
            check(isinstance(answer.parsed, WriteAccepted),
                  f"{power}'s orders {[o.to_dict() for o in orders]} accepted: {answer.content!r}")
        return answer

    def pass_until(round_, power, phase):
        for _ in range(500):
            seen = view()
            if seen.round_ == round_ and seen.turn == power and seen.phase == phase:
                return
            order(seen.turn, EndPhaseOrder(type_=EndPhaseOrderType.END_PHASE))
        raise SystemExit(f"FAILED: never reached {power}'s {phase} of round {round_}")

    # Round 1: Russia buys, flies a fighter to Karelia and places; standing orders there.
    pass_until(1, "russia", "Purchase")
    order("russia", PurchaseOrder(units=units(INF=1), type_=PurchaseOrderType.PURCHASE))
    order("russia", SetStandingOrdersOrder(territory="Karelia", order_of_loss=["INF", "ARM"], type_=SetStandingOrdersOrderType.SET_STANDING_ORDERS))
    pass_until(1, "russia", "NonCombatMove")
    order("russia", MoveOrder(units=units(FTR=1), path=["Russia", "Karelia"], type_=MoveOrderType.MOVE))
    pass_until(1, "russia", "Placement")
    order("russia", PlaceOrder(territory="Russia", units=units(INF=1), type_=PlaceOrderType.PLACE))
    # A refused order is a problem document naming what is wrong, and changes nothing.
    before = view().version
    refused = order("russia", PlaceOrder(territory="Nowhere", units=units(INF=1), type_=PlaceOrderType.PLACE), expect_ok=False)
    check(isinstance(refused.parsed, Problem) and refused.status_code in (404, 422),
          f"a place that does not exist is refused: {refused.status_code} {refused.content!r}")
    check(view().version == before, "a refused order changes nothing")

    # Round 2: Germany attacks Karelia; the server rolls the dice.
    pass_until(2, "germany", "CombatMove")
    order("germany",
          MoveOrder(units=units(ARM=1), path=["East Europe", "Karelia"], type_=MoveOrderType.MOVE),
          EndPhaseOrder(type_=EndPhaseOrderType.END_PHASE),
          FightBattleOrder(territory="Karelia", type_=FightBattleOrderType.FIGHT_BATTLE))
    page = game_battles.sync(client=public, id=game_id)
    check(not isinstance(page, Problem), f"the battles are listed: {page}")
    battles = page.battles
    check(len(battles) >= 1, f"a battle is on the record: {page}")
    check(battles[0].territory.startswith("Karelia") and len(battles[0].dice) >= 1, f"the battle in Karelia has its dice: {battles[0].to_dict()}")

    # The rest of Germany's turn as a text, the way players write it: previewed (nothing
    # recorded, no die), then submitted.
    text = "# the rest of Germany's turn\nnon-combat move:\nend turn\n"
    before = view().version
    preview = submit_turn.sync(client=gm, id=game_id, body=TurnRequest(text=text, power="germany", dry_run=True),
                               idempotency_key=str(uuid.uuid4()))
    check(isinstance(preview, TurnPreview), f"the turn previewed: {preview}")
    check(view().version == before and preview.then.to_play == "united-kingdom",
          f"a preview records nothing and says who plays next: {preview.to_dict()}")
    written = submit_turn.sync(client=gm, id=game_id, body=TurnRequest(text=text, power="germany"),
                               idempotency_key=str(uuid.uuid4()))
    check(isinstance(written, WriteAccepted) and written.version > before and written.summary,
          f"the turn text recorded, with its summary in words: {written}")
    check(view().turn == "united-kingdom", "the United Kingdom plays next")

    # The map at the battle's version, as the SVG document's bytes.
    drawn = game_board_svg.sync_detailed(client=public, id=game_id, version=battles[0].version,
                                         highlight=battles[0].territory)
    check(drawn.status_code == 200 and drawn.content.startswith(b"<svg"), "the map is drawn")
    check(b"highlighted" in drawn.content, "the battle's place is ringed")

    # Odds for the same fight.
    odds = battle_odds.sync(client=public, body=OddsRequest.from_dict({
        "ruleset": "cutthroat", "attacker": "1 arm", "defender": "3 inf, 1 ftr"}))
    check(not isinstance(odds, Problem), f"odds computed: {odds}")

    # Each player gives one order of their own (standing orders equal to the defaults,
    # which change nothing): a game its master played alone would not be rated.
    for seat in view().seats:
        own = AuthenticatedClient(base_url=base, token=player_tokens[seat.player],
                                  raise_on_unexpected_status=True)
        answer = submit_orders.sync(
            client=own, id=game_id,
            body=OrdersRequest(orders=[SetStandingOrdersOrder(type_=SetStandingOrdersOrderType.SET_STANDING_ORDERS)],
                               power=seat.power),
            idempotency_key=str(uuid.uuid4()),
        )
        check(isinstance(answer, WriteAccepted), f"{seat.player}'s own order accepted: {answer}")

    # The end, and the placements.
    ended = end_game.sync_detailed(client=gm, id=game_id, idempotency_key=str(uuid.uuid4()))
    check(ended.status_code == 200, f"game ended: {ended.content!r}")
    placements = game_placements.sync(client=public, id=game_id)
    check(isinstance(placements, PlacementsView) and len(placements.placements) == 5, f"five placements: {placements}")

    # The indexes see the new tournament (read models catch up within moments).
    import time
    for _ in range(50):
        listed = tournament_list.sync(client=public, state="open")
        if isinstance(listed, TournamentList) and any(t.name == "Client Cup" for t in listed.tournaments):
            break
        time.sleep(0.1)
    else:
        raise SystemExit("FAILED: the tournament index never listed Client Cup")
    ann = player_detail.sync(client=public, handle="ann")
    check(not isinstance(ann, Problem), f"ann's page: {ann}")

    # The export: the whole stream as NDJSON, for `warlog audit`.
    # The generated functions parse JSON; NDJSON is read through the client's own
    # connection (its base URL, timeouts and headers).
    export = public.get_httpx_client().get(f"/v1/streams/game-{game_id}/events",
                                           headers={"Accept": "application/x-ndjson"})
    check(export.status_code == 200, f"export read: {export.status_code}")
    lines = [json.loads(line) for line in export.content.decode().splitlines() if line]
    check(any(line["event_type"] == "GameEnded" for line in lines), "the export holds the game's end")
    with open(export_path, "wb") as out:
        out.write(export.content)
    print(f"played game {game_id}: {len(lines)} events exported, {len(battles)} battle(s)")


if __name__ == "__main__":
    main()
