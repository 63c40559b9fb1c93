"""The ground floor's measure declarations: the catalogue (``catalogue.py``), the conventions a text can state
(``conventions.py``), measure names in ir-measures' syntax (``syntax.py``) and the names declared to ir-measures'
parser (``names.py``). Every stage imports them; they import nothing above the ground floor."""
