"""The ground floor's measure declarations: the catalogue (`catalogue.py`) and the names declared to ir-measures'
parser (`names.py`). Every stage imports them; they import nothing of the package."""
