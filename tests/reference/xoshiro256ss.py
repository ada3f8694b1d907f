#!/usr/bin/python3
"""Independent reference for seprank::Rng: splitmix64 seeding + xoshiro256**, written
from the published recurrences (Blackman & Vigna 2018). test_random.cpp checks the C++
stream against the values this prints: python3 tests/reference/xoshiro256ss.py"""
M = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M


def stream(seed, n):
    st, s = seed, []
    for _ in range(4):
        st, z = splitmix64(st)
        s.append(z)
    out = []
    for _ in range(n):
        out.append((rotl((s[1] * 5) & M, 7) * 9) & M)
        t = (s[1] << 17) & M
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


if __name__ == "__main__":
    for seed in (0, 12345):
        print(seed, stream(seed, 3))
