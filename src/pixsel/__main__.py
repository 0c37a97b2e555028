from pixsel.cli import main

raise SystemExit(main())
