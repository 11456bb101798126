"""``python -m accord`` runs the command line."""

from accord.cli.main import main

if __name__ == "__main__":
    main()
