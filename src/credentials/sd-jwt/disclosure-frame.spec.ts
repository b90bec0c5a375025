import { disclosureFrame } from './disclosure-frame.js';

const claims = {
  given_name: 'Erika',
  address: { street_address: 'Heidestraße 17', locality: 'Köln', geo: { lat: 50.9 } },
  nationalities: ['DE', 'FR'],
  degrees: [
    { type: 'Bachelor', year: 2010 },
    { type: 'Master', year: 2012 },
  ],
};

describe('disclosureFrame', () => {
  it('makes a top-level claim disclosable', () => {
    expect(disclosureFrame(claims, [['given_name']])).toEqual({ _sd: ['given_name'] });
  });

  it('reaches into nested objects, the parent staying plain unless named too', () => {
    expect(disclosureFrame(claims, [['address', 'geo', 'lat']])).toEqual({
      address: { geo: { _sd: ['lat'] } },
    });
    expect(disclosureFrame(claims, [['address'], ['address', 'locality']])).toEqual({
      _sd: ['address'],
      address: { _sd: ['locality'] },
    });
  });

  it('makes an array element disclosable by index, or every element by null', () => {
    expect(disclosureFrame(claims, [['nationalities', 1]])).toEqual({
      nationalities: { _sd: [1] },
    });
    expect(disclosureFrame(claims, [['nationalities', null]])).toEqual({
      nationalities: { _sd: [0, 1] },
    });
  });

  it("reaches through every element's object with null", () => {
    expect(disclosureFrame(claims, [['degrees', null, 'year']])).toEqual({
      degrees: { 0: { _sd: ['year'] }, 1: { _sd: ['year'] } },
    });
  });

  it('names each claim once, whatever the paths repeat', () => {
    expect(disclosureFrame(claims, [['given_name'], ['given_name']])).toEqual({
      _sd: ['given_name'],
    });
  });

  it("leaves out paths to nothing, and the issuer's own claims", () => {
    expect(
      disclosureFrame({ ...claims, iss: 'x', status: {} }, [
        [],
        ['missing'],
        ['given_name', 'first'],
        ['nationalities', 2],
        ['nationalities', 'DE'],
        ['address', 0],
        ['iss'],
        ['status'],
        ['vct'],
      ]),
    ).toEqual({});
  });
});
