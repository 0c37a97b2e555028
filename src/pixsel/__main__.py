from pixsel.cli import console

console()
