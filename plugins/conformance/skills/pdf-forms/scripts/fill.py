"""Fills a PDF form from a JSON file of values (an example script shipped with the skill)."""
import json
import sys


def main() -> None:
    form, values = sys.argv[1], json.load(open(sys.argv[2]))
    print(f"would fill {form} with {sorted(values)}")


if __name__ == "__main__":
    main()
