#!/usr/bin/env python3
"""An independent reimplementation of warlog's dice (libs/rules/src/dice.rs), for auditors.

    python3 docs/audit/dice_reference.py SEED_HEX GAME_ID STREAM_VERSION COUNT [SIDES]

prints COUNT dice of SIDES sides (6 unless given; a dice table's rolls name their `max`,
and its table id stands for the game id). It uses nothing but the Python standard library, so a published game's
dice can be checked without warlog's code: SHA-256(seed || game id || version as u64 BE)
seeds PCG XSL-RR 128/64 exactly as rand_pcg's Pcg64::from_seed does, and each die is
next_u32 % SIDES + 1 after rejecting the top 2^32 mod SIDES values (for six sides, those
from 4294967292 up).
"""
import hashlib
import sys

MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
MASK128 = (1 << 128) - 1
MASK64 = (1 << 64) - 1


class Pcg64:
    def __init__(self, seed32: bytes):
        words = [int.from_bytes(seed32[i:i + 8], "little") for i in range(0, 32, 8)]
        self.state = words[0] | (words[1] << 64)
        self.increment = (words[2] | (words[3] << 64)) | 1
        self.state = (self.state + self.increment) & MASK128
        self._step()

    def _step(self):
        self.state = (self.state * MULTIPLIER + self.increment) & MASK128

    def next_u64(self) -> int:
        self._step()
        rot = self.state >> 122
        xsl = ((self.state >> 64) ^ self.state) & MASK64
        return ((xsl >> rot) | (xsl << ((64 - rot) % 64))) & MASK64

    def next_u32(self) -> int:
        return self.next_u64() & 0xFFFFFFFF


def dice(seed: bytes, game_id: str, stream_version: int, count: int, sides: int = 6):
    digest = hashlib.sha256(seed + game_id.encode() + stream_version.to_bytes(8, "big")).digest()
    rng = Pcg64(digest)
    limit = (1 << 32) - (1 << 32) % sides
    out = []
    while len(out) < count:
        value = rng.next_u32()
        if value < limit:
            out.append(value % sides + 1)
    return out


if __name__ == "__main__":
    seed_hex, game_id, version, count = sys.argv[1:5]
    sides = int(sys.argv[5]) if len(sys.argv) > 5 else 6
    print(" ".join(str(d) for d in dice(bytes.fromhex(seed_hex), game_id, int(version), int(count), sides)))
