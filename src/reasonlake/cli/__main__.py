import sys

from reasonlake.cli import main

sys.exit(main())
