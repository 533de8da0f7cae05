#!/usr/bin/env python3
"""Fits the float32 erf of the math expansion pass (src/tir/expand_math.cpp).

erf(z) is approximated on [0, 4] (erf(4) rounds to 1 in float32) by the rational form
z P(z^2) / Q(z^2) with Q(0) = 1, P and Q of degree 5 in z^2. The coefficients come from
linearised least squares (P - erf Q / z = 0 weighted by 1 / Q of the previous pass) with
Lawson re-weighting towards the minimax error; they are then rounded to float32 and the
result is evaluated as the generated code does (Horner with FMA, float32 roundings) over
every 7th float in [1e-6, 4] to report the error the code really has.

Usage: scripts/fit-erf.py   (NumPy; about a minute)
"""
import math

import numpy as np

DEGREE_P, DEGREE_Q, UPPER = 5, 5, 4.0


def fit(passes=30):
    """Coefficients (lowest degree first) of P and Q with the smallest maximum error."""
    dense = np.linspace(0, UPPER, 4000)
    clustered = UPPER * (1 - np.cos(np.linspace(0, np.pi / 2, 4000)))
    z = np.unique(np.concatenate([dense, clustered]))
    f = np.array([math.erf(v) for v in z])
    t = z * z
    weights, previous_q = np.ones_like(z), np.ones_like(z)
    best = None
    for step in range(passes):
        columns = [z * t**k for k in range(DEGREE_P + 1)]
        columns += [-f * t**k for k in range(1, DEGREE_Q + 1)]
        a = np.stack(columns, 1)
        row_weights = weights / previous_q
        c, *_ = np.linalg.lstsq(a * row_weights[:, None], f * row_weights, rcond=None)
        p, q = c[: DEGREE_P + 1], np.concatenate([[1.0], c[DEGREE_P + 1 :]])
        qv = np.polyval(q[::-1], t)
        error = z * np.polyval(p[::-1], t) / qv - f
        worst = np.abs(error).max()
        if best is None or worst < best[0]:
            best = (worst, p, q)
        previous_q = np.abs(qv)
        if step > 2:
            weights = weights * np.sqrt(np.abs(error) / worst + 1e-3)
            weights /= weights.max()
    return best[1], best[2]


def to_f32(v):
    return np.float64(np.float32(v))


def evaluate_like_codegen(p, q, z):
    """z P / Q in float32 with fused multiply-adds, clamped to 1 as the code does."""
    t = to_f32(z * z)
    pv = np.full_like(z, to_f32(p[-1]))
    for c in p[-2::-1]:
        pv = to_f32(pv * t + to_f32(c))
    qv = np.full_like(z, to_f32(q[-1]))
    for c in q[-2::-1]:
        qv = to_f32(qv * t + to_f32(c))
    return np.minimum(to_f32(to_f32(z * pv) / qv), 1.0)


def hex32(v):
    """A float32 value as a C hexadecimal literal, trailing zero digits dropped."""
    mantissa, exponent = float(np.float32(v)).hex().split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent


def main():
    p, q = fit()
    lo, hi = np.float32(1e-6).view(np.int32), np.float32(UPPER).view(np.int32)
    z = np.arange(lo, hi + 1, 7, dtype=np.int32).view(np.float32).astype(np.float64)
    reference = np.array([math.erf(v) for v in z])
    error = np.abs(evaluate_like_codegen(p, q, z) - reference)
    print("P, highest degree first:", ", ".join(hex32(c) for c in p[::-1]))
    print("Q, highest degree first:", ", ".join(hex32(c) for c in q[::-1]))
    print(f"float32 evaluation: max abs error {error.max():.2e}, "
          f"max rel error {(error / reference).max():.2e}")


if __name__ == "__main__":
    main()
