"""``python -m accord`` runs the command line."""

from accord.cli import main

if __name__ == "__main__":
    main()
