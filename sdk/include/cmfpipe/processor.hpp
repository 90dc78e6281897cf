#pragma once
// Policy processors of the copy-on-write CMF pipeline. The interface is completed by the
// CMF pipeline work (issue 3); the registry only needs the type to exist.

namespace cmfpipe {

class Processor {
public:
    virtual ~Processor();
};

}  // namespace cmfpipe
