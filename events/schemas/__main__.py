"""``python -m events.schemas``: regenerate the committed JSON Schema files."""

from events.schemas import write_schemas

if __name__ == "__main__":
    for path in write_schemas():
        print(path)
