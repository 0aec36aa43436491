"""Gives the conformance run something to read: five players, a tournament they entered
with its first round seated (a game), and a game of its own. Prints shell assignments of
the ids for tests/conformance/run.sh; with them schemathesis reaches the answers of real
resources, not only their 404s.

Usage: seed.py BASE_URL ADMIN_TOKEN
"""
import json
import sys
import urllib.request
import uuid

PLAYERS = ["ann", "bob", "cy", "di", "ed"]


def call(base, token, method, path, body=None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Idempotency-Key": str(uuid.uuid4()),
        },
    )
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def main():
    base, token = sys.argv[1:3]
    for handle in PLAYERS:
        call(base, token, "POST", "/v1/players", {"handle": handle, "display_name": handle.title()})
    tournament = call(base, token, "POST", "/v1/tournaments", {
        "name": "Conformance Cup", "rounds": 2, "short_tables": "byes",
        "deadlines": ["2030-01-10T18:00:00Z", "2030-02-10T18:00:00Z"],
    })["tournament_id"]
    for handle in PLAYERS:
        call(base, token, "POST", f"/v1/tournaments/{tournament}/entries", {"player": handle})
    call(base, token, "POST", f"/v1/tournaments/{tournament}/rounds")
    game = call(base, token, "POST", "/v1/games", {"ruleset": "cutthroat", "players": PLAYERS})["game_id"]
    print(f"game={game} tournament={tournament}")


if __name__ == "__main__":
    main()
