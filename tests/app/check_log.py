"""The log of the app's Python tests (measure_compare.py, profile_compare.py): one line a check,
'ok   NAME' or 'FAIL NAME DETAIL', and at the end 'N passed, N failed' with the exit status."""

failures = []
passed = 0


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failures.append(name)
        print(f"FAIL {name} {detail}")


def summary():
    """Prints the counts; 1 when a check failed, else 0."""
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0
