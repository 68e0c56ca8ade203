"""Checks the verdicts of tests/sdk_shapes/cases.json against the Python SDK's models.

Each case says whether the official Python SDK (mcp >= 2, package `mcp_types`) accepts a
result, a request's params or a whole message under a revision; mcpwire's unit test
(`sdk_shape_cases_agree_with_the_sdk_models`, src/profile/tests.rs) holds mcpwire to the same
verdicts. This script keeps the file honest: run it with a Python that has the SDK
(`.ci/interop.sh` does). Exit status 1 when a verdict disagrees with the SDK.

    python tests/sdk_shapes/verify.py [tests/sdk_shapes/cases.json]
"""
import importlib
import json
import sys

import pydantic

MODULES = {
    # The SDK's client reads every legacy revision with its 2025-11-25 models.
    "2024-11-05": "mcp_types._v2025_11_25",
    "2025-03-26": "mcp_types._v2025_11_25",
    "2025-06-18": "mcp_types._v2025_11_25",
    "2025-11-25": "mcp_types._v2025_11_25",
    "2026-07-28": "mcp_types._v2026_07_28",
}


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/sdk_shapes/cases.json"
    with open(path) as f:
        cases = json.load(f)
    bad = 0
    for i, case in enumerate(cases):
        model = getattr(importlib.import_module(MODULES[case["profile"]]), case["model"])
        try:
            # Strict: no coercion ("3" is no integer, 1 no boolean), as mcpwire reads the
            # schemas and the zod-based TypeScript SDK does; pydantic's lax mode would take
            # them.
            model.model_validate_json(json.dumps(case["json"]), strict=True)
            sdk = True
        except pydantic.ValidationError:
            sdk = False
        # A case may record that the Python SDK differs from the verdict on purpose
        # (`python_sdk`: what the SDK says; the case's note says why).
        expected = case.get("python_sdk", case["valid"])
        if sdk != expected:
            bad += 1
            print(f"case {i} ({case['profile']} {case['method']}: {case.get('note', '')}): "
                  f"file expects the SDK to say {expected}, the SDK's {case['model']} says {sdk}")
    print(f"sdk_shapes: {len(cases) - bad} of {len(cases)} cases agree with the SDK models")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
