"""The same command line as a script file, for ``spark-submit`` (which runs
a file, not a module):

    spark-submit --master spark://head:7077 \\
        "$(python -c 'import bareme.dist.submit as s; print(s.__file__)')" \\
        evaluate --engine spark RULEBOOK --cases FILE --out FILE
"""

import sys

from bareme.dist.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
