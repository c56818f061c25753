"""A Juju bundle file, read the way ``juju deploy`` reads it, as frozen values.

The keys follow Juju's bundle format (``BundleData``/``ApplicationSpec`` in juju/charm
``bundledata.go``): ``bundle: kubernetes``, ``applications`` with ``charm``, ``channel``,
``revision``, ``base``/``series``, ``trust``, ``scale`` or its alias ``num_units`` (not
both), ``resources``, ``options`` (the application's config), ``constraints``, ``storage``;
``relations`` as pairs of ``app:endpoint`` (or a bare app, which Juju completes from the
charms' metadata). A local charm (``charm: ./x.charm``) is relative to the bundle's folder,
as Juju resolves it.

``load`` reads a file (``load_bundle``) or its text (``parse_bundle``) into the values of
``model`` (``BundleSpec``, ``BundleApp``): ``overlays`` merges the file's overlays,
``app`` reads each application, ``includes`` its ``include-file://`` options, ``relations``
the relations, and ``notes`` says what Juju would ignore or do that the harness does not.
"""
